package io.coord.internal;

import io.coord.CoordPath;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/**
 * Children a recipe does not understand, in a directory where they take no part in a decision (a
 * typo'd child of a queue's task directory, another tool's node), logged at WARN once per node,
 * never dropped silently. Where such a node could change a decision (who holds, who leads), the
 * recipe refuses instead ({@link io.coord.ForeignNodesException}); this is for the rest. Inspection
 * ({@code coord queue show}, {@code coord barrier show}) lists the same nodes every time it is asked.
 *
 * <p>Thread-safe. Remembers at most {@value #REMEMBERED} nodes, so a directory flooded with
 * foreign children cannot grow it without bound; past that it warns once more, saying so, and
 * stops.
 */
public final class ForeignNodeWarnings {
    static final int REMEMBERED = 1_000;

    private final Logger log;
    private final String recipe;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private volatile boolean full;

    /** {@code recipe}: what the log line calls the directory's owner, e.g. {@code "queue 'jobs'"}. */
    public ForeignNodeWarnings(Logger log, String recipe) {
        this.log = log;
        this.recipe = recipe;
    }

    /**
     * Of {@code children} of {@code dir}, those {@code understood} rejects are foreign: each is
     * logged once, naming the directory, the node and what the recipe expects there ({@code
     * expected}). Returns the foreign ones, in the order given.
     */
    public List<String> check(CoordPath dir, Collection<String> children, Predicate<String> understood,
                              String expected) {
        List<String> foreign = new ArrayList<>();
        for (String child : children) {
            if (!understood.test(child)) {
                foreign.add(child);
                warnOnce(dir, child, expected);
            }
        }
        return foreign;
    }

    private void warnOnce(CoordPath dir, String child, String expected) {
        if (full) {
            return;
        }
        String key = dir.value() + "/" + child; // not dir.child(): a foreign name need not be a valid Coord name
        if (warned.contains(key)) {
            return;
        }
        if (warned.size() >= REMEMBERED) {
            full = true;
            log.warn("{}: more than {} foreign nodes seen; no more are logged (coord's show commands list them all)",
                    recipe, REMEMBERED);
            return;
        }
        if (warned.add(key)) {
            log.warn("{}: ignoring {}, a node it did not make and does not understand (it expects {} in {}); remove it,"
                    + " or give the other tool a path of its own", recipe, key, expected, dir);
        }
    }
}
