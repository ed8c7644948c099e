// Moments on a page in the reader's own time zone: the server writes each one in UTC
// (<time datetime="...">28 Nov 2026, 08:12:00 UTC</time>), since only the browser
// knows where its reader is; this rewrites them in the page's language, the UTC
// wording kept as the tooltip.

const written = new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
  dateStyle: "medium",
  timeStyle: "short",
});

/** Each <time datetime> under `root` written in the reader's time zone, once. */
export function localTimes(root) {
  for (const moment of root.querySelectorAll("time[datetime]:not([data-local])")) {
    const when = new Date(moment.getAttribute("datetime"));
    if (Number.isNaN(when.getTime())) continue;
    moment.title = moment.textContent;
    moment.textContent = written.format(when);
    moment.dataset.local = "";
  }
}

localTimes(document);
