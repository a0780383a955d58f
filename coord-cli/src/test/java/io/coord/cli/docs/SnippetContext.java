package io.coord.cli.docs;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.Lease;
import io.coord.fence.FenceGuard;
import java.time.Duration;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every Java snippet in the README and docs/ may assume it has: the objects a service already
 * holds (a connected client, its settings, an executor for listeners, a logger, a DataSource) and a
 * few application methods standing for "your code here". {@link DocSnippetsCompileTest} compiles
 * each snippet as the body of a method of a subclass of this class; nothing is run.
 */
@SuppressWarnings("unused")
public abstract class SnippetContext {
    protected CoordClient client;
    protected CoordClient adminClient;
    protected CoordSettings settings;
    protected Executor executor;
    protected Logger log = LoggerFactory.getLogger("snippet");
    protected DataSource dataSource;
    protected Lease lease;
    protected FenceGuard fence;

    /** Stands for the application's own protected work. */
    protected void doWork() {
    }

    /** Stands for the application's own work on one item. */
    protected void doWork(Object item) {
    }

    /** Stands for the application's reaction to an event (pause a worker, page someone...). */
    protected void react(Object event) {
    }

    protected Duration timeout() {
        return Duration.ofSeconds(5);
    }
}
