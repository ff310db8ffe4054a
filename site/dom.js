// The page as the lab's parts reach it: an element by id, and work that needs the page parsed (the page's script
// runs in <head>).
export const $ = (id) => document.getElementById(id);
export const whenDom = (fn) => (document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", fn, { once: true }) : fn());
