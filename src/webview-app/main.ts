// The webview app (issue 5) replaces this.
document.body.dataset.ready = 'true';
