// Restore one origin's localStorage from a saved storage state: items = [{name, value}].
(items) => {
  for (const item of items) window.localStorage.setItem(item.name, item.value);
  return items.length;
}
