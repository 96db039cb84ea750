// Drop a text selection an action made by accident (a drag that started over text).
() => { const s = window.getSelection(); if (s) s.removeAllRanges(); }
