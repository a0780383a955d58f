package io.coord.cli.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The line protocol between the demo's controller and a worker (the worker's stdin and stdout).
 * One line each:
 * <ul>
 *   <li>worker → controller, an event: {@code E KIND key=value ...} (values have no spaces);
 *   <li>worker → controller, a ledger request: {@code Q id READ} or {@code Q id WRITE key=value ...};
 *   <li>controller → worker, the answer: {@code R id text};
 *   <li>controller → worker, a command: {@code C NAME [argument]}.
 * </ul>
 * This class is the worker's end; the controller's is {@code WorkerProcess}.
 */
final class Wire {
    private final PrintStream out;
    private final Map<Long, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
    private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    private final AtomicLong ids = new AtomicLong();

    Wire(InputStream in, PrintStream out) {
        this.out = out;
        Thread reader = new Thread(() -> read(in), "demo-wire-reader");
        reader.setDaemon(true);
        reader.start();
    }

    private void read(InputStream in) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.startsWith("R ")) {
                    String[] parts = line.split(" ", 3);
                    CompletableFuture<String> answer = pending.remove(Long.parseLong(parts[1]));
                    if (answer != null) {
                        answer.complete(parts.length > 2 ? parts[2] : "");
                    }
                } else if (line.startsWith("C ")) {
                    commands.add(line.substring(2));
                }
            }
        } catch (IOException e) {
            // the controller is gone: same as the end of input
        }
        // Without a controller the worker has no ledger and no orders: it stops.
        commands.add("EXIT");
        pending.values().forEach(f -> f.completeExceptionally(new IllegalStateException("the controller closed the connection")));
    }

    /** Prints one event line. */
    void emit(String kind, Object... keyValues) {
        out.println("E " + kind + format(keyValues));
        out.flush();
    }

    /** Sends a request to the controller and waits (at most {@code timeout}) for its answer. */
    String call(String request, Duration timeout) throws InterruptedException {
        long id = ids.incrementAndGet();
        CompletableFuture<String> answer = new CompletableFuture<>();
        pending.put(id, answer);
        out.println("Q " + id + " " + request);
        out.flush();
        try {
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("no answer to '" + request + "': " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            pending.remove(id);
            throw new IllegalStateException("no answer to '" + request + "' within " + timeout);
        }
    }

    /** The next command from the controller, waiting at most {@code timeout}; null if none came. */
    String nextCommand(Duration timeout) throws InterruptedException {
        return commands.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** {@code key=value ...} with a leading space, in argument order. */
    static String format(Object... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("key/value pairs expected, got " + keyValues.length + " items");
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < keyValues.length; i += 2) {
            String value = String.valueOf(keyValues[i + 1]);
            if (value.chars().anyMatch(Character::isWhitespace)) {
                value = value.replaceAll("\\s+", "_");
            }
            s.append(' ').append(keyValues[i]).append('=').append(value);
        }
        return s.toString();
    }

    /** Parses {@code key=value ...} (the part after the kind or request name). */
    static Map<String, String> parse(String[] words, int from) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = from; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq > 0) {
                fields.put(words[i].substring(0, eq), words[i].substring(eq + 1));
            }
        }
        return fields;
    }
}
