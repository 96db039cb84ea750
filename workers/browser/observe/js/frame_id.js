// Slot number snapshot.js gave this <iframe> element.
el => window.__webagent ? window.__webagent.frameIds.get(el) : undefined
