// icm's one vocabulary for figures, as the Go side writes them
// (server/internal/human): durations, counts, token figures, sizes and
// times. Both pass the same table (server/internal/human/testdata/
// table.json), so a figure reads the same in the CLI, in the server's
// text and in what the extension writes itself.
//
// One decimal under ten of a unit, whole numbers above (3.1 s, 12 s,
// 1.4 KB, 14 KB, ~1.2k tokens); exact counts in full with commas (4,472);
// estimates with a tilde; times on a 24-hour clock, with the date only
// when it is not today and the year only when it is not this year.

/** A wall time in milliseconds: "850 ms", "3.1 s", "12 s", "2 min 5 s", "1 h 4 min". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) {
    return '';
  }
  const whole = Math.round(ms);
  if (whole <= 0) {
    return '0 ms';
  }
  if (whole < 1000) {
    return `${whole} ms`;
  }
  const tenths = Math.round(whole / 100);
  if (tenths < 100) {
    return `${(tenths / 10).toFixed(1)} s`;
  }
  const s = Math.round(whole / 1000);
  if (s < 60) {
    return `${s} s`;
  }
  if (s < 3600) {
    return s % 60 === 0 ? `${s / 60} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
  }
  const m = Math.round(s / 60);
  return m % 60 === 0 ? `${m / 60} h` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** An exact number with a comma between thousands: "4,472". */
export function formatCount(n: number): string {
  const digits = String(Math.abs(Math.trunc(n)));
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${grouped}` : grouped;
}

/** A count and its noun: "1 case", "3 cases"; many is the plural when it is not the noun with an s. */
export function plural(n: number, noun: string, many = `${noun}s`): string {
  return n === 1 ? `1 ${noun}` : `${formatCount(n)} ${many}`;
}

/** An exact token figure: "1 token", "4,472 tokens". */
export function formatTokens(n: number): string {
  return plural(n, 'token');
}

/** An estimated token figure: "~819 tokens", "~1.2k tokens", "~12k tokens". */
export function formatEstimate(n: number): string {
  return `~${approx(n)} tokens`;
}

/** An estimated figure without its unit: "819", "1.2k", "12k". */
export function approx(n: number): string {
  if (n < 1000) {
    return String(Math.max(Math.round(n), 0));
  }
  return `${tenthsOrWhole(n / 1000)}k`;
}

/** A number of bytes: "812 B", "1.4 KB", "14 KB", "5.2 MB", "1.3 GB". */
export function formatSize(n: number): string {
  if (n < 1000) {
    return `${Math.max(Math.round(n), 0)} B`;
  }
  let v = n;
  for (const unit of ['KB', 'MB', 'GB']) {
    v /= 1000;
    if (Math.round(v * 10) / 10 < 1000 || unit === 'GB') {
      return `${tenthsOrWhole(v)} ${unit}`;
    }
  }
  return '';
}

/**
 * How fast a model wrote, n tokens over ms: "8.5 tok/s", "42 tok/s",
 * "1,250 tok/s"; "" under a tenth of a second (too short to measure, as a
 * canned answer is) or when nothing was written.
 */
export function formatRate(n: number, ms: number): string {
  if (!(n > 0) || !(ms >= 100)) {
    return '';
  }
  const v = n / (ms / 1000);
  return Math.round(v * 10) / 10 < 10 ? `${tenthsOrWhole(v)} tok/s` : `${formatCount(Math.round(v))} tok/s`;
}

function tenthsOrWhole(v: number): string {
  const r = Math.round(v * 10) / 10;
  return r < 10 ? r.toFixed(1) : String(Math.round(v));
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

interface Parts {
  year: number;
  month: number;
  day: number;
  hours: number;
  minutes: number;
  seconds: number;
}

function partsOf(t: Date, utc: boolean): Parts {
  return utc
    ? { year: t.getUTCFullYear(), month: t.getUTCMonth(), day: t.getUTCDate(), hours: t.getUTCHours(), minutes: t.getUTCMinutes(), seconds: t.getUTCSeconds() }
    : { year: t.getFullYear(), month: t.getMonth(), day: t.getDate(), hours: t.getHours(), minutes: t.getMinutes(), seconds: t.getSeconds() };
}

const two = (n: number) => String(n).padStart(2, '0');

function dayOf(p: Parts, now: Parts): string {
  if (p.year === now.year && p.month === now.month && p.day === now.day) {
    return '';
  }
  return p.year === now.year ? `${months[p.month]} ${p.day} ` : `${months[p.month]} ${p.day} ${p.year} `;
}

/**
 * When something happened, to the minute: "20:06" today, "Nov 28 20:06"
 * earlier this year, "Nov 28 2025 20:06" before; local time unless utc.
 */
export function formatTime(t: Date, now: Date, utc = false): string {
  const p = partsOf(t, utc);
  return `${dayOf(p, partsOf(now, utc))}${two(p.hours)}:${two(p.minutes)}`;
}

/** formatTime to the second: "20:06:19", "Nov 28 20:06:19". */
export function formatMoment(t: Date, now: Date, utc = false): string {
  const p = partsOf(t, utc);
  return `${dayOf(p, partsOf(now, utc))}${two(p.hours)}:${two(p.minutes)}:${two(p.seconds)}`;
}
