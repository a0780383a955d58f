package io.coord.internal;

import io.coord.CoordPath;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException;

/**
 * One Curator call in the background, as a future: sent now (so it keeps its place among the
 * session's requests, and calls sent back to back cost one round trip), completed with the event
 * whatever its result code, on ZooKeeper's event thread. Nothing waits for it: dependent steps
 * must not block, and a caller's future is completed elsewhere ({@link CallerExecutor}).
 */
public final class Background {
    private Background() {
    }

    /** Hands Curator the callback (Curator's builders declare {@code throws Exception}). */
    @FunctionalInterface
    public interface Call {
        void start(BackgroundCallback callback) throws Exception;
    }

    /** Starts {@code call}; a call that cannot even be sent fails the future with the Coord exception. */
    public static CompletableFuture<CuratorEvent> call(Zk zk, CoordPath path, Call call) {
        CompletableFuture<CuratorEvent> result = new CompletableFuture<>();
        try {
            call.start((client, event) -> result.complete(event));
        } catch (Exception e) {
            result.completeExceptionally(zk.translate(e, path));
        }
        return result;
    }

    /** The result code of an event, as ZooKeeper's enum. */
    public static KeeperException.Code code(CuratorEvent event) {
        return KeeperException.Code.get(event.getResultCode());
    }
}
