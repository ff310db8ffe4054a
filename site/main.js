// The page's script: build.py bundles this module and its imports (esbuild) into wt.js, one classic script that
// runs in <head> (the reader features must apply before the first paint; a module script would be deferred,
// and the classroom file, on file://, can neither load a module by src nor import from an inline one).
// It reads the build's config (#wt-build), the state rules in it (state.js), then starts the reader features
// (page.js), playback (player.js), the figures' readout (readout.js) and the live lab (boot.js), over this site or
// the classroom file's payload.
import { Codec } from "./state.js";
import { Address } from "./address.js";
import { Page } from "./page.js";
import { Player } from "./player.js";
import { httpTransport, startLab } from "./boot.js";
import { offGrid } from "./early.js";
import { ClassroomTransport } from "./classroom.js";
import { install as installReadout } from "./readout.js";
import { installFront } from "./front.js";
import { hook } from "./hook.js";
import { installDrop } from "./drop.js";
import { installEditor } from "./codelab.js";
import { shareUrl } from "./links.js";
import { whenDom } from "./dom.js";

const config = JSON.parse(document.getElementById("wt-build").textContent);
const rules = new Codec(config.state);
// Each module is handed the others it calls, made in the order they need each other: the address bar's one writer,
// the page (its links carry the address's query), the player (it writes the address) and the lab (it restarts the
// player). The player is made first, so it reaches the lab through callbacks.
const address = new Address(rules);
const page = new Page(rules, address);
const transport = config.classroom ? new ClassroomTransport(config) : httpTransport;
let lab = null; // boot.js's state, once made
const player = new Player(config, rules, transport, {
  address, embed: page.embed,
  paused: () => !!lab && lab.status === "paused",
  played: (sid, off) => lab && lab.early.played(sid, off),
  playerMoved: () => lab && lab.playerMoved(),
});
// The sections whose first live answer is a numerics worker's: those the link opens off their grid (of the one
// embedded, if any), and an embedded section with a Run before Panel (earlyrun.js). The lab may boot that worker first.
const offGridAt = offGrid(config.playback || {}, rules, address.query).filter((sid) => !page.embed || sid === page.embed);
const runFirst = page.embed && (config.early_runs || {})[page.embed] ? [page.embed] : [];
lab = startLab(config, transport, { live: page.live, address, player, firstNeeds: [...offGridAt, ...runFirst] });
// The one hook (hook.js): read-only, for tests and bench; nothing on the page reads it.
window.__wt = hook({ config, transport, address, page, player, lab });
installDrop(document); // a dropped file goes to the live section under it, never opens in this tab
// the code lab's editor, the page's own (codelab.js): its Share links carry the address's query, like the page's
installEditor(document, { pageUrl: () => shareUrl(address), dropFragment: () => address.dropFragment(),
  warm: () => lab.pool.warm({ reader: true, prepare: "codelab" }), runBefore: (sid) => lab.runs.start(sid) });
// The readout's tooltip and aria-live region go in <body>, and the opening figure is there: once the page is parsed.
whenDom(() => { installReadout(config.readout); installFront(document); });
