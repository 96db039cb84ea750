// The element is (inside) a link, image-map area or form that opens its page in another tab
// or window (issue 31 item 4: such a tab appears only once its page answers).
(e) => !!e.closest(
  'a[target]:not([target="_self"]):not([target="_top"]):not([target="_parent"]),'
  + 'area[target]:not([target="_self"]), form[target]:not([target="_self"])',
)
