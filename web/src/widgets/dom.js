// A tiny element builder, so the widgets read as the structure they produce.

/**
 * h("p", {class: "x", "aria-label": "y", onclick: fn}, "text", child, [more, children])
 * Attributes whose value is null, undefined or false are left out; "on…" keys add listeners.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces el's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** "Y" with subscript i, as DOM: Y<sub>i</sub>. */
export function sub(base, index) {
  return [base, h("sub", {}, String(index))];
}

let counter = 0;
/** A page-unique id, for label/aria-describedby links between a widget's elements. */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}
