// The "loading Python" indicator: the stage and the bytes downloaded so far.

function megabytes(bytes) {
  return (bytes / 1e6).toFixed(1);
}

export class Progress {
  constructor(root) {
    this.root = root;
    this.bar = root.querySelector("progress");
    this.text = root.querySelector("span");
  }

  update({ stage, loaded, total }) {
    this.root.hidden = false;
    this.root.dataset.state = "loading";
    if (total > 0) {
      this.bar.max = total;
      this.bar.value = Math.min(loaded, total);
      this.text.textContent = `${stage}: ${megabytes(Math.min(loaded, total))} of ${megabytes(total)} MB`;
    } else {
      this.bar.removeAttribute("value");
      this.text.textContent = `${stage}…`;
    }
  }

  ready() {
    this.root.dataset.state = "ready";
    this.bar.max = 1;
    this.bar.value = 1;
    this.text.textContent = "Python is ready.";
  }

  restarting() {
    this.update({ stage: "Restarting Python", loaded: 0, total: 0 });
  }

  failed(message) {
    this.root.dataset.state = "failed";
    this.text.textContent = message;
  }
}
