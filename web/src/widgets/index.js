// The live widgets a lesson can place with `{{ widget: NAME }}`. The names must match
// web/widgets.json. Each exports mount(el, ctx): el is the placeholder
// <div class="widget" data-widget="NAME">, ctx is {lang, onLangChange(cb), runWithLearnerCode(calls)}.

import "./widgets.css";
import * as tpMlpExample from "./tp-mlp-example.js";
import * as rowSplit from "./row-split.js";

export const widgets = {
  "tp-mlp-example": { mount: tpMlpExample.mount },
  "row-split": { mount: rowSplit.mount },
};
