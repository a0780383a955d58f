package io.coord.election;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/**
 * A loopback TCP proxy in front of one ZooKeeper server, to cut one client off silently
 * ({@link #freeze()}: bytes stop flowing both ways and new connections hang, as in a partition).
 * A private stand-in until coord-test's ClientProxy lands.
 */
final class CutProxy implements AutoCloseable {
    private final NioReactor reactor;
    private final TcpCrusher crusher;
    private final int port;

    CutProxy(int serverPort) {
        try {
            reactor = new NioReactor(5);
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not start a proxy", e);
        }
        crusher = TcpCrusherBuilder.builder().withReactor(reactor)
                .withBindAddress("127.0.0.1", port)
                .withConnectAddress("127.0.0.1", serverPort)
                .buildAndOpen();
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    /** Black-holes the client: nothing passes, no RST; it notices only by its own read timeout. */
    void freeze() {
        crusher.freeze();
    }

    /** Lets bytes flow again; connections made meanwhile go through. */
    void unfreeze() {
        if (crusher.isFrozen()) {
            crusher.unfreeze();
        }
    }

    @Override
    public void close() {
        crusher.close();
        reactor.close();
    }
}
