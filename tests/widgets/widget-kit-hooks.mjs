// Module hooks that let Node import lesson widgets as the build's esbuild does: `widget-kit/<file>`
// is web/src/widgets/<file>, and a widget's own `.css` import is an empty module (a page concern).
// Registered by tests/widgets/widget-kit.mjs (`node --import ./tests/widgets/widget-kit.mjs`).
const KIT = new URL("../../web/src/widgets/", import.meta.url);

export async function resolve(specifier, context, next) {
  if (specifier.startsWith("widget-kit/")) {
    return { url: new URL(specifier.slice("widget-kit/".length), KIT).href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (url.endsWith(".css")) return { format: "module", source: "", shortCircuit: true };
  return next(url, context);
}
