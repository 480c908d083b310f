/**
 * The fence between a killed replica process and its successor: wait until the database has no
 * session of the killed process left (pg_stat_activity, by the application_name every connection of
 * that incarnation carries). A backend that was executing the killed process's compare-and-set ends
 * only after the statement did — committed or rolled back — so once none is left, nothing the dead
 * incarnation sent can still change the shard, and the successor's read of the upper is final.
 */
import pg from 'pg';

export interface SessionFence {
  /** Resolves once no session named `applicationName` is left; rejects after the deadline. */
  waitGone(applicationName: string): Promise<void>;
  close(): Promise<void>;
}

const POLL_MS = 10;

export async function openSessionFence(url: string, deadlineMs = 15_000): Promise<SessionFence> {
  const client = new pg.Client({ connectionString: url, application_name: 'sbkit-crash-fence' });
  client.on('error', () => {});
  await client.connect();
  return {
    async waitGone(applicationName) {
      const until = performance.now() + deadlineMs;
      for (;;) {
        const r = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
        if ((r.rows[0]?.n ?? 0) === 0) return;
        if (performance.now() > until) throw new Error(`the sessions of ${applicationName} did not end within ${deadlineMs} ms of its process exiting`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    close: () => client.end().catch(() => {}),
  };
}
