// Mark the scanned elements whose texts hold a secret; returns how many were new
// (runtime/secret_boxes.py).
(s, hits) => s.mark(hits)
