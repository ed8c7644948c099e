// The page's words in its language. The server puts into the page (script#messages)
// the catalogue's translation of every message these scripts ask for; English is the
// source, so a message missing there shows as written. Fields are {name}, as in Python.

const table = JSON.parse(document.getElementById("messages")?.textContent || "{}");

/** The page's language, as the server chose it. */
export const lang = document.documentElement.lang || "en";

function fill(text, values) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** `message` in the page's language, its {fields} filled from `values`. */
export function _(message, values = {}) {
  const found = table[message];
  return fill(typeof found === "string" ? found : message, values);
}

/** The form of a counted message for `n` ({n} is filled too). */
export function ngettext(singular, plural, n, values = {}) {
  const forms = table[singular];
  const one = n === 1;
  const form = Array.isArray(forms) ? forms[one ? 0 : 1] : one ? singular : plural;
  return fill(form, { n, ...values });
}

/** A number as the page's language writes it, with `digits` decimals. */
export function number(value, digits = 0) {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
}
