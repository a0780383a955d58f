package io.coord.queue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.server.FinalRequestProcessor;
import org.apache.zookeeper.server.PrepRequestProcessor;
import org.apache.zookeeper.server.Request;
import org.apache.zookeeper.server.RequestProcessor;
import org.apache.zookeeper.server.ServerCnxn;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.SyncRequestProcessor;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * A standalone ZooKeeper server on loopback that can lose the reply to a transaction (fault F10
 * for {@code multi}): once {@linkplain #dropNextMultiReply armed}, the next {@code multi} is
 * logged and applied as usual, but the client's connection is closed just before the reply would
 * be sent, so the client sees ConnectionLoss for a transaction that did commit.
 *
 * <p>Same pattern as coord-test's {@code ReplyLossServer} (which handles single creates only): a
 * step in front of ZooKeeper's final request processor. Tied to ZooKeeper 3.9's server internals.
 */
final class MultiReplyLossServer implements AutoCloseable {
    private final Path dataDir;
    private final DroppingServer server;
    private final ServerCnxnFactory factory;

    private MultiReplyLossServer(Path dataDir, DroppingServer server, ServerCnxnFactory factory) {
        this.dataDir = dataDir;
        this.server = server;
        this.factory = factory;
    }

    static MultiReplyLossServer start() throws Exception {
        Path dir = Files.createTempDirectory("coord-queue-replyloss-");
        DroppingServer zks = new DroppingServer(dir.toFile(), 500);
        ServerCnxnFactory f = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 100);
        try {
            f.startup(zks);
        } catch (IOException | InterruptedException | RuntimeException e) {
            f.shutdown();
            zks.shutdown();
            deleteTree(dir);
            throw e;
        }
        return new MultiReplyLossServer(dir, zks, f);
    }

    String connectString() {
        return "127.0.0.1:" + factory.getLocalPort();
    }

    /** The next multi transaction (from any client) is applied but its reply is lost. */
    void dropNextMultiReply() {
        dropNextMultiReply(() -> { });
    }

    /**
     * Like {@link #dropNextMultiReply()}, running {@code beforeClose} once the transaction is logged
     * and just before the client's connection is closed (e.g. to keep that client from reconnecting).
     */
    void dropNextMultiReply(Runnable beforeClose) {
        server.beforeClose = beforeClose;
        server.armed.set(true);
    }

    int droppedReplies() {
        return server.dropped.get();
    }

    @Override
    public void close() {
        try {
            factory.shutdown();
            server.shutdown();
        } finally {
            deleteTree(dataDir);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory
        }
    }

    private static final class DroppingServer extends ZooKeeperServer {
        final AtomicBoolean armed = new AtomicBoolean();
        final AtomicInteger dropped = new AtomicInteger();
        volatile Runnable beforeClose = () -> { };

        DroppingServer(File dir, int tickTime) throws IOException {
            super(dir, dir, tickTime);
        }

        @Override
        protected void setupRequestProcessors() {
            RequestProcessor finalProcessor = new ReplyDropper(new FinalRequestProcessor(this), this);
            SyncRequestProcessor sync = new SyncRequestProcessor(this, finalProcessor);
            sync.start();
            PrepRequestProcessor prep = new PrepRequestProcessor(this, sync);
            prep.start();
            firstProcessor = prep;
        }
    }

    private static final class ReplyDropper implements RequestProcessor {
        private final RequestProcessor next;
        private final DroppingServer server;

        ReplyDropper(RequestProcessor next, DroppingServer server) {
            this.next = next;
            this.server = server;
        }

        @Override
        public void processRequest(Request request) throws RequestProcessorException {
            if (request.type == ZooDefs.OpCode.multi && request.cnxn != null && request.getHdr() != null
                    && request.getHdr().getType() == ZooDefs.OpCode.multi && server.armed.compareAndSet(true, false)) {
                // Already in the log; closing first means the reply has nowhere to go.
                server.beforeClose.run();
                request.cnxn.close(ServerCnxn.DisconnectReason.CONNECTION_CLOSE_FORCED);
                server.dropped.incrementAndGet();
            }
            next.processRequest(request);
        }

        @Override
        public void shutdown() {
            next.shutdown();
        }
    }
}
