package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.coord.CoordClient;
import io.coord.CoordException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.function.Executable;

/**
 * The four checks of RELIABILITY.md (c) for one bad input, for the recipe modules (coord-core's
 * {@code BadInputIT} makes the same checks for its rows): the documented error type, final when it
 * is a {@link CoordException} ({@code retryable() == false}); a message that contains each named
 * string (the bad value and the rule); within 1 s, stretched by {@code -Dcoord.test.timing}, so
 * nothing waited for a timeout or retried; and nothing changed on the server under the observer's
 * namespace: every node with its mzxid (a write) and pzxid (a child created or deleted, even one
 * deleted again) is the same before and after.
 */
public final class BadInputs {
    /** How soon a bad input must be refused, before scaling. */
    public static final Duration BOUND = Duration.ofSeconds(1);

    private BadInputs() {
    }

    /**
     * Runs {@code call}, which must throw {@code type}, and checks the four things.
     *
     * @param observer a client of the test's namespace that may read every node of it
     * @param named    strings the message must contain
     * @return the error, for further checks
     */
    public static <E extends Throwable> E assertRefused(String row, CoordClient observer, Class<E> type, Executable call,
                                                        String... named) throws Exception {
        return refused(row, observer, type, false, call, named);
    }

    /**
     * As {@link #assertRefused}, for the one kind of refusal that is not final: a full queue or
     * group ({@code retryable() == true}: the same call can succeed once the state changes). It
     * still comes at once and changes nothing; Coord itself never retries it.
     */
    public static <E extends CoordException> E assertRefusedForNow(String row, CoordClient observer, Class<E> type,
                                                                   Executable call, String... named) throws Exception {
        return refused(row, observer, type, true, call, named);
    }

    private static <E extends Throwable> E refused(String row, CoordClient observer, Class<E> type, boolean retryable,
                                                   Executable call, String... named) throws Exception {
        Map<String, List<Long>> before = tree(observer);
        long start = System.nanoTime();
        Throwable thrown = null;
        try {
            call.execute();
        } catch (Throwable t) {
            thrown = t;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        if (thrown == null) {
            fail(row + ": accepted");
        }
        E e = assertInstanceOf(type, thrown, row + ": wrong error " + thrown);
        System.out.println("row " + row + " -> " + type.getSimpleName() + " in " + took.toMillis() + " ms: " + e.getMessage());
        for (String part : named) {
            assertTrue(String.valueOf(e.getMessage()).contains(part), row + ": the message names \"" + part + "\": " + e.getMessage());
        }
        if (e instanceof CoordException coord) {
            assertEquals(retryable, coord.retryable(), row + (retryable ? ": retryable once the state changes"
                    : ": a bad input is final, never retried"));
        }
        Duration bound = Awaits.scaled(BOUND);
        assertTrue(took.compareTo(bound) < 0, row + ": refused within " + bound + ", took " + took);
        assertEquals(before, tree(observer), row + ": nothing on the server was created, deleted or changed");
        return e;
    }

    /** Every node under the observer's namespace, with its mzxid and pzxid; empty if the namespace does not exist yet. */
    static Map<String, List<Long>> tree(CoordClient observer) throws Exception {
        CuratorFramework raw = observer.curator().usingNamespace(null);
        String ns = observer.curator().getNamespace();
        String root = ns == null || ns.isEmpty() ? "/" : "/" + ns;
        Map<String, List<Long>> out = new LinkedHashMap<>();
        List<String> todo = new ArrayList<>(List.of(root));
        while (!todo.isEmpty()) {
            String path = todo.remove(0);
            Stat stat = raw.checkExists().forPath(path);
            if (stat == null) {
                continue; // only the root can be missing here: nothing under it changes the map
            }
            out.put(path, List.of(stat.getMzxid(), stat.getPzxid()));
            String prefix = path.equals("/") ? "/" : path + "/";
            raw.getChildren().forPath(path).stream().sorted().forEach(child -> todo.add(prefix + child));
        }
        return out;
    }
}
