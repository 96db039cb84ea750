// A field that now holds a task secret renders as dots, like a password input, so the
// step screenshots taken after it never show the value (issue 12).
(el) => {
  el.style.setProperty("-webkit-text-security", "disc", "important");
}
