// The texts a secret_boxes.js scan collected (runtime/secret_boxes.py).
(s) => s.texts
