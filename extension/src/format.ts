// The figures the extension words itself, as the Go side writes them
// (server/internal/human) and passing the same table
// (server/internal/human/testdata/table.json, docs/vocabulary.md). The
// server sends its figures in words; these are for what it never saw as
// the person does: how long a run has been going by now, times against
// the person's own clock and today, and the Test Explorer's figures
// (icm test --json's job results carry numbers only).
//
// Durations: one decimal under ten seconds, whole numbers above (3.1 s,
// 12 s); exact counts in full with commas (4,472); times on a 24-hour
// clock, with the date only when it is not today and the year only when
// it is not this year.

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
