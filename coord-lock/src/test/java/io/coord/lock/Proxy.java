package io.coord.lock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import org.netcrusher.core.reactor.NioReactor;
import org.netcrusher.tcp.TcpCrusher;
import org.netcrusher.tcp.TcpCrusherBuilder;

/** A loopback TCP proxy in front of one server, to cut clients off (stand-in for coord-test's ClientProxy). */
final class Proxy implements AutoCloseable {
    private final NioReactor reactor;
    private final TcpCrusher crusher;
    private final int port;

    private Proxy(int serverPort) {
        try {
            this.reactor = new NioReactor();
            try (ServerSocket probe = new ServerSocket(0)) {
                this.port = probe.getLocalPort();
            }
            this.crusher = TcpCrusherBuilder.builder().withReactor(reactor)
                    .withBindAddress("127.0.0.1", port).withConnectAddress("127.0.0.1", serverPort).buildAndOpen();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Proxy to(int serverPort) {
        return new Proxy(serverPort);
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    /** Resets every open connection; new ones are accepted at once. */
    void cut() {
        crusher.closeAllPairs();
    }

    /** Stops listening and resets every connection: clients cannot reconnect until {@link #accept()}. */
    void refuse() {
        crusher.close();
    }

    void accept() {
        crusher.open();
    }

    @Override
    public void close() {
        crusher.close();
        reactor.close();
    }
}
