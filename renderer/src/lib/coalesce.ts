/**
 * Runs `task` now, or once more after the current run when asked again meanwhile, so a burst of
 * events costs at most two calls and the last answer always reflects the last event.
 */
export function coalesce(task: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    running = true;
    try {
      do {
        again = false;
        await task();
      } while (again);
    } finally {
      running = false;
    }
  };
  return () => {
    if (running) again = true;
    else void run();
  };
}
