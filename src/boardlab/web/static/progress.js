// The lessons a person has done, kept in this browser (no account needed): a set of
// lesson ids for each game.

const KEY = "boardlab.lessons";

function all() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "{}");
    return kept && typeof kept === "object" ? kept : {};
  } catch {
    return {}; // a value another version wrote: start again
  }
}

export function done(game) {
  const ids = all()[game];
  return new Set(Array.isArray(ids) ? ids : []);
}

export function markDone(game, lesson) {
  const kept = all();
  kept[game] = [...new Set([...(Array.isArray(kept[game]) ? kept[game] : []), lesson])];
  localStorage.setItem(KEY, JSON.stringify(kept));
}
