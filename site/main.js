// The page's script: build.py bundles this module and its imports (esbuild) into wt.js, one classic script that
// runs in <head> (the reader features must apply before the first paint; a module script would be deferred,
// and the classroom file, on file://, can neither load a module by src nor import from an inline one).
// It reads the build's config (#wt-build), the state rules in it (state.js), then starts the reader features
// (page.js), playback (player.js), the figures' readout (readout.js) and the live lab (boot.js), over this site or
// the classroom file's payload.
import { codec } from "./state.js";
import { startAddress } from "./address.js";
import { startPage } from "./page.js";
import { startPlayer } from "./player.js";
import { httpTransport, startLab } from "./boot.js";
import { classroomTransport } from "./classroom.js";
import { install as installReadout } from "./readout.js";

const config = JSON.parse(document.getElementById("wt-build").textContent);
const rules = codec(config.state);
// The one hook (docs/DESIGN.md, "Page and worker"): tests and bench read the page's state here, and page,
// player and lab reach each other only through it: wt.page, wt.player, wt.address (the one writer of the URL;
// wt.query is its query), the lab's status and follow.
const wt = (window.__wt = { config });
wt.address = startAddress(rules);
Object.defineProperty(wt, "query", { get: () => wt.address.query, enumerable: true });
wt.page = startPage(rules, wt);
const transport = (wt.transport = config.classroom ? classroomTransport(config) : httpTransport);
wt.player = startPlayer(config, rules, transport, wt);
startLab(config, transport, wt);
// The readout's tooltip and aria-live region go in <body>: once the page is parsed.
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => installReadout(), { once: true });
else installReadout();
