// The check between the server's reported version and the one this
// extension was built for: a server that fails it is stopped at start (a
// stale icm.server.path), so nothing in the extension words what an older
// server would have left out.

/** Splits "v1.2.3", "1.2.3-dev" or "1.2.3+meta" into numbers. */
export function parseVersion(v: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/.exec(v.trim());
  if (m === null) {
    return undefined;
  }
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

export type VersionCheck = { ok: true } | { ok: false; reason: string };

/**
 * Says whether a server of version actual speaks the protocol this extension
 * expects: the same major version and, like a caret range, a minor version
 * at least the expected one (exactly it while the major version is 0).
 */
export function checkServerVersion(expected: string, actual: string | undefined): VersionCheck {
  const want = parseVersion(expected);
  if (want === undefined) {
    return { ok: false, reason: `the extension's expected server version "${expected}" is not a version` };
  }
  if (actual === undefined || actual === '') {
    return { ok: false, reason: 'the server did not report its version' };
  }
  const got = parseVersion(actual);
  if (got === undefined) {
    return { ok: false, reason: `the server reported version "${actual}", which is not a version` };
  }
  const range = want[0] === 0 ? `${want[0]}.${want[1]}.x` : `${want[0]}.x from ${want[0]}.${want[1]}`;
  const sameMajor = got[0] === want[0];
  const minorOK = want[0] === 0 ? got[1] === want[1] : got[1] >= want[1];
  if (!sameMajor || !minorOK) {
    return { ok: false, reason: `the server is version ${actual} but this extension needs ${range}` };
  }
  return { ok: true };
}
