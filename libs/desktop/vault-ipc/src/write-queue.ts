// IPC-10: one async mutex. Tasks run one at a time in arrival order; a failing task does not
// stop the queue.
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
