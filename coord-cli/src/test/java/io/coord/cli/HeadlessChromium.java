package io.coord.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.Codec;
import io.coord.test.Awaits;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real headless Chromium driven over the DevTools protocol (CDP) with the JDK's WebSocket: it
 * loads a page, evaluates JavaScript in it and takes screenshots. Started with a profile
 * directory of its own; {@link #close()} kills the browser with every process it started and
 * deletes the profile.
 */
final class HeadlessChromium implements AutoCloseable {
    private static final Path BINARY = Path.of("/usr/bin/chromium");
    private static final Duration REPLY = Duration.ofSeconds(10);
    /** Replies carry screenshots as base64 strings, longer than the 64 KiB the shared mapper allows. */
    private static final ObjectMapper CDP = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(64 << 20).build()).build());

    private final Process process;
    private final Path profile;
    private final Map<Integer, CompletableFuture<JsonNode>> replies = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private WebSocket socket;

    /** The browser binary, if this machine has it (Debian's chromium package). */
    static Optional<Path> binary() {
        return Files.isExecutable(BINARY) ? Optional.of(BINARY) : Optional.empty();
    }

    private HeadlessChromium(Process process, Path profile) {
        this.process = process;
        this.profile = profile;
    }

    /** Starts the browser on {@code url}, a {@code width} x {@code height} window. */
    static HeadlessChromium open(String url, int width, int height) throws Exception {
        Path profile = Files.createTempDirectory("coord-ui-chromium");
        Process p = new ProcessBuilder(BINARY.toString(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir=" + profile,
                "--window-size=" + width + "," + height, url)
                .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
        HeadlessChromium browser = new HeadlessChromium(p, profile);
        try {
            browser.attach();
            return browser;
        } catch (Exception | Error e) {
            browser.close();
            throw e;
        }
    }

    /** Reads the DevTools port the browser chose, finds the page's target and opens its WebSocket. */
    private void attach() throws Exception {
        Path portFile = profile.resolve("DevToolsActivePort");
        String port = Awaits.value("chromium wrote " + portFile, Duration.ofSeconds(20), () -> {
            if (!process.isAlive()) {
                throw new IllegalStateException("chromium exited with " + process.exitValue() + ": " + log());
            }
            try {
                List<String> lines = Files.exists(portFile) ? Files.readAllLines(portFile) : List.of();
                return lines.isEmpty() || lines.get(0).isBlank() ? Optional.empty() : Optional.of(lines.get(0).trim());
            } catch (IOException e) {
                return Optional.empty();
            }
        });
        HttpClient http = HttpClient.newHttpClient();
        String ws = Awaits.value("chromium's page target", Duration.ofSeconds(10), () -> {
            try {
                String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                for (JsonNode t : Codec.mapper().readTree(body)) {
                    if (t.path("type").asText().equals("page")) {
                        return Optional.of(t.get("webSocketDebuggerUrl").asText());
                    }
                }
                return Optional.empty();
            } catch (IOException e) {
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
        socket = http.newWebSocketBuilder().buildAsync(URI.create(ws), new Replies()).get(REPLY.toSeconds(), TimeUnit.SECONDS);
    }

    /** Routes each reply to the call that waits for its id; events are not used. */
    private final class Replies implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    JsonNode msg = CDP.readTree(partial.toString());
                    CompletableFuture<JsonNode> waiting = msg.has("id") ? replies.remove(msg.get("id").asInt()) : null;
                    if (waiting != null) {
                        waiting.complete(msg);
                    }
                } catch (IOException e) {
                    replies.values().forEach(f -> f.completeExceptionally(e));
                }
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }
    }

    /** One CDP call; its result, or an error naming the method and what the browser said. */
    JsonNode call(String method, ObjectNode params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        replies.put(id, reply);
        ObjectNode msg = Codec.mapper().createObjectNode().put("id", id).put("method", method);
        msg.set("params", params);
        socket.sendText(msg.toString(), true).get(REPLY.toSeconds(), TimeUnit.SECONDS);
        JsonNode r = reply.get(Awaits.scaled(REPLY).toMillis(), TimeUnit.MILLISECONDS);
        if (r.has("error")) {
            throw new IllegalStateException(method + " failed: " + r.get("error"));
        }
        return r.get("result");
    }

    /** Evaluates {@code expression} in the page; its value as a string ("" for null or undefined). */
    String eval(String expression) throws Exception {
        JsonNode r = call("Runtime.evaluate", Codec.mapper().createObjectNode().put("expression", expression).put("returnByValue", true));
        if (r.has("exceptionDetails")) {
            throw new IllegalStateException(expression + " threw: " + r.get("exceptionDetails"));
        }
        JsonNode value = r.get("result").get("value");
        return value == null || value.isNull() ? "" : value.asText();
    }

    /** A PNG of the viewport. */
    byte[] screenshot() throws Exception {
        return Base64.getDecoder().decode(call("Page.captureScreenshot", Codec.mapper().createObjectNode().put("format", "png"))
                .get("data").asText());
    }

    private String log() {
        try {
            String log = Files.readString(profile.resolve("chromium.log"));
            return log.length() > 2000 ? log.substring(log.length() - 2000) : log;
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Kills the browser and every process it started, waits for them, and deletes the profile. */
    @Override
    public void close() throws Exception {
        if (socket != null) {
            socket.abort();
        }
        List<ProcessHandle> all = Stream.concat(process.descendants(), Stream.of(process.toHandle())).toList();
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : all) {
            h.onExit().get(10, TimeUnit.SECONDS);
        }
        try (Stream<Path> files = Files.walk(profile)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
