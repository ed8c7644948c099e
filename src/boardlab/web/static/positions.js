// Positions no game stores (lessons, the analysis board): the page holds the position's
// string and options, and asks the server what follows from them.

import { _ } from "./i18n.js";

/** The address `path` with a board's position and options in its query. */
export function boardAddress(path, view, more = {}) {
  const query = new URLSearchParams();
  query.set("position", view.position);
  for (const option of view.options) query.append("option", option);
  for (const [name, value] of Object.entries(more)) {
    for (const item of [].concat(value)) query.append(name, item);
  }
  return `${path}?${query}`;
}

/** What the server answers about `view`'s position (`kind`: "", "play", "analysis",
 * "edit"), as JSON; an Error with the server's own words when it refuses. */
export async function askBoard(view, kind = "", more = {}) {
  const path = `/api/board/${view.game}${kind ? "/" + kind : ""}`;
  let response;
  try {
    response = await fetch(boardAddress(path, view, more), { headers: { Accept: "application/json" } });
  } catch {
    throw new Error(_("The server cannot be reached; try again in a moment."));
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || _("the server answered {status}", { status: response.status }));
  return data;
}

/** The view after `actions` (strings) played from `view`'s position. */
export function fetchBoard(view, actions) {
  return askBoard(view, "play", { action: actions });
}
