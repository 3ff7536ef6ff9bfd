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
    // The worker names its stages in English; known ones are translated.
    let name = stage;
    try {
      name = this.t(stage);
    } catch {
      // a stage this page has no text for: shown as the worker wrote it
    }
    if (total > 0) {
      this.bar.max = total;
      this.bar.value = Math.min(loaded, total);
      this.text.textContent = this.t("megabytes", { stage: name, loaded: megabytes(Math.min(loaded, total)), total: megabytes(total) });
    } else {
      this.bar.removeAttribute("value");
      this.text.textContent = `${name}…`;
    }
  }

  ready() {
    this.root.dataset.state = "ready";
    this.bar.max = 1;
    this.bar.value = 1;
    this.text.textContent = this.t("pythonReadyShort");
  }

  failed(message) {
    this.root.dataset.state = "failed";
    this.text.textContent = message;
  }
}
