// The "loading Python" indicator: the stage and the bytes downloaded so far.

/** Megabytes, as a number: the page's text (ui-text.js) writes it its language's way ("1,5"). */
function megabytes(bytes) {
  return bytes / 1e6;
}

export class Progress {
  /** `t(key, vars)`: the page's text in its current language (ui-text.js). */
  constructor(root, t) {
    this.root = root;
    this.t = t;
    this.bar = root.querySelector("progress");
    this.text = root.querySelector("span");
  }

  update({ stage, loaded, total }) {
    this.root.hidden = false;
    this.root.dataset.state = "loading";
    // The worker names its stages in English; known ones are translated. (Stages change many
    // times a second: the next one shows a language switch.)
    let name = stage;
    try {
      name = this.t(stage);
    } catch {
      // a stage this page has no text for: shown as the worker wrote it
    }
    if (total > 0) {
      this.bar.max = total;
      this.bar.value = Math.min(loaded, total);
      this.showAsIs(this.t("megabytes", { stage: name, loaded: megabytes(Math.min(loaded, total)), total: megabytes(total) }));
    } else {
      this.bar.removeAttribute("value");
      this.showAsIs(`${name}…`);
    }
  }

  ready() {
    this.root.dataset.state = "ready";
    this.bar.max = 1;
    this.bar.value = 1;
    this.showText("pythonReadyShort");
  }

  failed(message) {
    this.root.dataset.state = "failed";
    this.showAsIs(message);
  }

  /** Shows the page's text `key`, marked so that a language switch (ui-text.js applyUiText)
   * writes it in the new language. The HTML starts with data-ui="loadingPython": left in place,
   * a language switch, or a lesson mounted in place, showed "Loading Python…" under a ready one. */
  showText(key) {
    this.text.dataset.ui = key;
    this.text.textContent = this.t(key);
  }

  /** Shows `text` as it is (already in the page's language, or the worker's own words). */
  showAsIs(text) {
    delete this.text.dataset.ui;
    this.text.textContent = text;
  }
}
