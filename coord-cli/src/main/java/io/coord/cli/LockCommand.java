package io.coord.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.lock.LockInfo;
import io.coord.lock.Locks;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code coord lock ls <prefix>} and {@code coord lock show <path>}: who holds which lock and who
 * waits, read from the lock nodes themselves (session, czxid token, creation time, and the holder
 * info Coord writes into each node). Read-only.
 */
@Command(name = "lock", mixinStandardHelpOptions = true,
        description = "Inspects Coord locks, read-write locks and semaphores.",
        subcommands = {LockCommand.Ls.class, LockCommand.Show.class})
final class LockCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
    }

    /** The options both subcommands share: where to connect and how to print. */
    static final class Connection {
        @Spec(Spec.Target.MIXEE)
        CommandSpec spec;

        @Mixin
        ConnectOptions connection;

        @Option(names = "--json", description = "print one JSON object instead of text")
        boolean json;

        CoordClient open() throws InterruptedException {
            return connection.connect(spec);
        }

        CoordPath path(String value, String what) {
            try {
                return CoordPath.of(value);
            } catch (CoordException e) {
                throw new ParameterException(spec.commandLine(), what + ": " + e.getMessage());
            }
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true,
            description = {"Lists the locks at or under a prefix, with their holder and queue length."})
    static final class Ls implements Callable<Integer> {
        @Mixin
        Connection connection;

        @Parameters(index = "0", paramLabel = "PREFIX", defaultValue = "/locks", description = "where to look (default: ${DEFAULT-VALUE})")
        String prefix;

        @Override
        public Integer call() throws InterruptedException {
            CoordPath at = connection.path(prefix, "prefix");
            List<LockInfo> locks;
            Instant now;
            try (CoordClient client = connection.open()) {
                locks = Locks.list(client, at);
                now = Instant.now();
            }
            PrintWriter out = connection.spec.commandLine().getOut();
            if (connection.json) {
                ObjectNode o = JSON.createObjectNode();
                o.put("prefix", at.value());
                ArrayNode list = o.putArray("locks");
                for (LockInfo lock : locks) {
                    ObjectNode l = list.addObject();
                    l.put("path", lock.path().value());
                    l.put("holders", lock.holders().size());
                    l.put("waiters", lock.waiters().size());
                    if (lock.holder().isPresent()) {
                        l.set("holder", entry(lock.holder().get()));
                    } else {
                        l.putNull("holder");
                    }
                }
                out.println(o);
            } else if (locks.isEmpty()) {
                out.println("no locks under " + at);
            } else {
                List<String[]> rows = new ArrayList<>();
                rows.add(new String[] {"PATH", "HOLDERS", "WAITERS", "HOLDER", "HELD"});
                for (LockInfo lock : locks) {
                    LockInfo.Entry h = lock.holder().orElse(null);
                    rows.add(new String[] {lock.path().value(), String.valueOf(lock.holders().size()), String.valueOf(lock.waiters().size()),
                        h == null ? "-" : who(h), h == null ? "-" : held(h, now)});
                }
                table(out, rows);
            }
            out.flush();
            return CoordCommand.OK;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = {"Shows one lock: each holder (node, session, token, held since, owner, pid, host), "
                + "the waiters in queue order, and any foreign nodes (children no lock kind understands) by name."})
    static final class Show implements Callable<Integer> {
        @Mixin
        Connection connection;

        @Parameters(index = "0", paramLabel = "PATH", description = "the lock path, e.g. /locks/orders/42")
        String path;

        @Override
        public Integer call() throws InterruptedException {
            CoordPath at = connection.path(path, "path");
            LockInfo lock;
            Instant now;
            try (CoordClient client = connection.open()) {
                lock = Locks.inspect(client, at);
                now = Instant.now();
            }
            PrintWriter out = connection.spec.commandLine().getOut();
            if (connection.json) {
                ObjectNode o = JSON.createObjectNode();
                o.put("path", lock.path().value());
                ArrayNode holders = o.putArray("holders");
                lock.holders().forEach(e -> holders.add(entry(e)));
                ArrayNode waiters = o.putArray("waiters");
                lock.waiters().forEach(e -> waiters.add(entry(e)));
                ArrayNode foreign = o.putArray("foreign");
                lock.foreign().forEach(foreign::add);
                out.println(o);
            } else {
                out.println("lock      " + lock.path());
                if (lock.holders().isEmpty()) {
                    out.println("holder    none (free)");
                }
                for (LockInfo.Entry h : lock.holders()) {
                    out.println("holder    " + line(h) + "  held " + held(h, now));
                }
                out.println("waiters   " + lock.waiters().size());
                int i = 1;
                for (LockInfo.Entry w : lock.waiters()) {
                    out.println(String.format("  %3d     ", i++) + line(w) + "  waiting " + age(w.queuedAt(), now));
                }
                if (!lock.foreign().isEmpty()) {
                    out.println("foreign   " + lock.foreign().size() + " (no Coord or Curator lock node: every acquire here fails"
                            + " until they are gone)");
                    lock.foreign().forEach(f -> out.println("          " + f));
                }
            }
            out.flush();
            return CoordCommand.OK;
        }
    }

    static ObjectNode entry(LockInfo.Entry e) {
        ObjectNode o = JSON.createObjectNode();
        o.put("node", e.node().value());
        o.put("type", e.type());
        o.put("sessionId", e.sessionIdHex());
        o.put("token", e.token());
        o.put("queuedAt", e.queuedAt().toString());
        if (e.heldSince() == null) {
            o.putNull("heldSince");
        } else {
            o.put("heldSince", e.heldSince().toString());
        }
        o.put("owner", e.owner());
        if (e.pid() == null) {
            o.putNull("pid");
        } else {
            o.put("pid", e.pid());
        }
        o.put("host", e.host());
        return o;
    }

    private static String line(LockInfo.Entry e) {
        return e.node().name() + "  " + e.type() + "  session " + e.sessionIdHex() + "  token 0x" + Long.toHexString(e.token())
                + "  " + who(e);
    }

    private static String who(LockInfo.Entry e) {
        if (e.owner() == null) {
            return "(no Coord holder info)";
        }
        return e.owner() + " pid " + e.pid() + " on " + e.host();
    }

    /** Since when a holder holds; unstamped holders have held for under a second (they stamp after one). */
    private static String held(LockInfo.Entry e, Instant now) {
        return e.heldSince() == null ? "<1s (since " + e.queuedAt() + " or later)" : age(e.heldSince(), now) + " (since " + e.heldSince() + ")";
    }

    private static String age(Instant since, Instant now) {
        Duration d = Duration.between(since, now);
        if (d.isNegative()) {
            d = Duration.ZERO;
        }
        long s = d.toSeconds();
        return s < 120 ? s + "s" : s < 7200 ? (s / 60) + "m" : (s / 3600) + "h";
    }

    private static void table(PrintWriter out, List<String[]> rows) {
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                b.append(r[i]);
                if (i < r.length - 1) {
                    b.append(" ".repeat(width[i] - r[i].length() + 2));
                }
            }
            out.println(b.toString().stripTrailing());
        }
    }
}
