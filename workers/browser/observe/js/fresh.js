// True until snapshot.js has walked this document once (it leaves window.__webagent.snap):
// snapshot.py first_look waits for a new document to draw itself only then. The fingerprint
// (fingerprint.js) reports the same as `fresh` when it is taken anyway.
() => !(window.__webagent && window.__webagent.snap)
