// `node --import ./tests/widgets/widget-kit.mjs ...`: resolve widget imports like the build does.
import { register } from "node:module";

register("./widget-kit-hooks.mjs", import.meta.url);
