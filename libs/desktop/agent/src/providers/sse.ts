// Incremental Server-Sent Events parser (WHATWG rules), written by hand so the adapters own their
// streaming (PROV-01). Robust to chunk boundaries anywhere (including between CR and LF), CRLF /
// CR / LF line endings, multi-line `data:`, comments and a missing final blank line.

export interface SseEvent {
  /** `event:` field, or 'message' when absent. */
  event: string;
  /** All `data:` lines of the event joined with '\n'. */
  data: string;
}

export class SseParser {
  private buffer = '';
  private lastWasCr = false;
  private started = false;
  private eventName = '';
  private dataLines: string[] = [];
  private hasData = false;

  /** Feeds decoded text; returns the events completed by it. */
  push(chunk: string): SseEvent[] {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A CR ending the previous chunk already ended a line; a LF starting this one belongs to it.
    if (this.lastWasCr && text.startsWith('\n')) text = text.slice(1);
    this.lastWasCr = false;
    const events: SseEvent[] = [];
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.buffer.slice(start, i);
      if (c === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.lastWasCr = true;
        }
      }
      start = i + 1;
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** End of stream: a pending event without its blank line is still delivered (lenient). */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer.length > 0) {
      const event = this.line(this.buffer);
      this.buffer = '';
      if (event) events.push(event);
    }
    const last = this.dispatch();
    if (last) events.push(last);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.dataLines.push(value);
      this.hasData = true;
    } else if (field === 'event') {
      this.eventName = value;
    }
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const event = this.hasData
      ? { event: this.eventName || 'message', data: this.dataLines.join('\n') }
      : undefined;
    this.eventName = '';
    this.dataLines = [];
    this.hasData = false;
    return event;
  }
}
