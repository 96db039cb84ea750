// target_info.js on the element behind a ref, resolved in the same call (resolve.js): the
// approval facts of a ref action cost one round trip. {stale: true} when the ref no longer
// resolves (another version, or the element left the page); the caller then re-resolves.
([version, id], resolve, targetInfo) => {
  const el = resolve([version, id]);
  return el ? targetInfo(el) : { stale: true };
}
