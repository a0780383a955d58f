package io.coord.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.coord.Codec;
import io.coord.CoordClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code coord ui}'s read-only web console: the JDK's {@link HttpServer} serving one page (plain
 * HTML, CSS and JavaScript from the classpath, no build step, nothing from the network) and one
 * JSON endpoint per tab ({@code /api/locks}, {@code /api/queues}, {@code /api/elections},
 * {@code /api/barriers}, {@code /api/config}, {@code /api/findings}), which the page polls every
 * second. Only GET and HEAD are served; nothing it does writes to ZooKeeper.
 *
 * <p>Requests run on two threads of its own, never on ZooKeeper's event thread. Closing it stops
 * the server and the recipes it keeps open; the client stays the caller's.
 */
public final class WebConsole implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WebConsole.class);
    /** The page's files, under io/coord/cli/ui/ on the classpath. */
    private static final Map<String, String> FILES = Map.of(
            "/", "index.html", "/index.html", "index.html", "/console.js", "console.js", "/console.css", "console.css");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8", "css", "text/css; charset=utf-8");

    /** One endpoint's read. */
    @FunctionalInterface
    private interface Read {
        ObjectNode read() throws Exception;
    }

    private final HttpServer server;
    private final ExecutorService threads;
    private final ConsoleData data;

    private WebConsole(HttpServer server, ExecutorService threads, ConsoleData data) {
        this.server = server;
        this.threads = threads;
        this.data = data;
    }

    /**
     * Serves the console for {@code client}'s namespace on {@code host:port} (port 0: any free
     * one), with {@code coord doctor}'s findings at its default thresholds (the demo's use).
     */
    public static WebConsole start(CoordClient client, String host, int port) throws IOException {
        return start(client, host, port, FindingsSource.doctor(client));
    }

    static WebConsole start(CoordClient client, String host, int port, FindingsSource findings) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
        ExecutorService threads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "coord-ui-http");
            t.setDaemon(true);
            return t;
        });
        ConsoleData data = new ConsoleData(client, findings);
        server.setExecutor(threads);
        Map<String, Read> api = Map.of("/api/locks", data::locks, "/api/queues", data::queues, "/api/elections", data::elections,
                "/api/barriers", data::barriers, "/api/config", data::config, "/api/findings", data::findings);
        server.createContext("/", exchange -> serve(exchange, api));
        server.start();
        return new WebConsole(server, threads, data);
    }

    /** Where the page is, e.g. {@code http://127.0.0.1:8080/}. */
    public String url() {
        InetSocketAddress at = server.getAddress();
        String host = at.getAddress().getHostAddress();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + at.getPort() + "/";
    }

    private static void serve(HttpExchange exchange, Map<String, Read> api) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getPath();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, "text/plain; charset=utf-8", bytes("read-only console: " + method + " " + path + " is not served"));
            } else if (api.containsKey(path)) {
                sendRead(exchange, path, api.get(path));
            } else if (FILES.containsKey(path)) {
                String file = FILES.get(path);
                send(exchange, 200, TYPES.get(file.substring(file.lastIndexOf('.') + 1)), resource(file));
            } else {
                send(exchange, 404, "text/plain; charset=utf-8", bytes("no page " + path + "; the console is at /"));
            }
        }
    }

    private static void sendRead(HttpExchange exchange, String path, Read read) throws IOException {
        ObjectNode body;
        int status = 200;
        try {
            body = read.read();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + path, e);
        } catch (Exception e) {
            // The page shows this line and keeps polling: a lost connection heals without a reload.
            LOG.debug("{} failed", path, e);
            status = 503;
            body = Codec.mapper().createObjectNode().put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        send(exchange, status, "application/json", Codec.mapper().writeValueAsBytes(body));
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static byte[] resource(String file) {
        try (InputStream in = WebConsole.class.getResourceAsStream("/io/coord/cli/ui/" + file)) {
            if (in == null) {
                throw new IllegalStateException("the console's " + file + " is missing from the classpath (a broken build)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Stops serving (requests under way get a second to finish) and closes the recipes the console kept open. */
    @Override
    public void close() {
        server.stop(1);
        threads.shutdown();
        try {
            threads.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        data.close();
    }
}
