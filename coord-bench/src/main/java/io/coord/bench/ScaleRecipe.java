package io.coord.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One recipe's scale curve for {@code ./coord bench --scale}: which benchmarks run (as
 * {@link Pass}es, each with the system properties that set its sizes), which of their figures make
 * the curve, and why the curve is not flat where it is not (the cause, regenerated with the table).
 *
 * @param name    the recipe, as named on the command line ({@code lock}, {@code config}, ...)
 * @param title   what is measured against what, for the table's heading and the plot
 * @param xLabel  what the size counts ({@code waiters}, {@code members})
 * @param sizes   the sizes asked for (a pass's benchmark may not honour them yet: the table says so)
 * @param peer    what the peer is, for the table's heading
 * @param passes  the benchmark runs that produce the curve
 * @param curves  which figures make the curve
 * @param cause   why the curve grows where it does: measured mechanisms, one paragraph
 */
record ScaleRecipe(String name, String title, String xLabel, List<Integer> sizes, String peer, List<Pass> passes, List<Curve> curves,
                   String cause) {
    /** Named, not referenced: other work changes these benchmarks' classes; {@link Benchmarks#select} checks the names. */
    private static final String CONFIG = "config.propagation";
    private static final String BARRIER = "barrier.double";
    /** The watchers config.propagation runs with when it does not read {@code coord.bench.config.readers}. */
    private static final int CONFIG_DEFAULT_WATCHERS = 50;

    ScaleRecipe {
        sizes = List.copyOf(sizes);
        passes = List.copyOf(passes);
        curves = List.copyOf(curves);
    }

    /**
     * One run of one benchmark with {@code properties} set (and restored after). Its figures' metrics
     * get {@code prefix} (e.g. {@code shared.}) so that two passes of one benchmark stay apart.
     */
    record Pass(String bench, Map<String, String> properties, String prefix) {
        Pass {
            properties = Map.copyOf(properties);
            Objects.requireNonNull(prefix, "prefix");
        }
    }

    /**
     * One line of the curve: the figures of {@code bench} whose metric, without its size token, is
     * {@code metric} ({@code handoff.p50.w64} is {@code handoff.p50} at size 64). {@code requests},
     * if not null, is the metric (likewise) of the server requests per operation at that size.
     * {@code fallbackSize} is the size of a figure whose metric has no size token (a benchmark
     * that does not read its size property yet runs its one default size); 0 if there is none.
     */
    record Curve(String bench, String metric, String label, String requests, int fallbackSize) {
    }

    /** Runs the passes of {@code recipes} as benchmarks, in order. */
    static List<Benchmark> benchmarks(List<ScaleRecipe> recipes) {
        List<Benchmark> out = new ArrayList<>();
        for (ScaleRecipe r : recipes) {
            for (Pass p : r.passes()) {
                out.add(new PassBenchmark(r.name(), p, Benchmarks.select(List.of(p.bench())).get(0)));
            }
        }
        return out;
    }

    /** The registered recipes in run order. */
    static List<ScaleRecipe> all() {
        return List.of(
                new ScaleRecipe("lock", "handoff time against queued waiters", "waiters", List.of(8, 64, 512), LockBench.PEER,
                        List.of(new Pass(LockHandoffBench.NAME, Map.of(LockHandoffBench.SIZES_PROPERTY, "8,64,512"), "")),
                        List.of(new Curve(LockHandoffBench.NAME, "handoff.p50", "handoff p50", "handoff.requests", 0),
                                new Curve(LockHandoffBench.NAME, "handoff.p99", "handoff p99", null, 0)),
                        "A handoff is one delete and one watch event to the next waiter on either side, so ZooKeeper allows it"
                                + " flat; what grows is the machine: every waiter is a client with its own threads and connection"
                                + " in this one JVM, beside the server, so at 512 waiters a handoff competes with 512 sessions' pings"
                                + " and their threads for 2 cores."),
                new ScaleRecipe("election", "failover time against candidates", "candidates", List.of(5, 50, 500),
                        "curator-LeaderLatch",
                        List.of(new Pass(ElectionScaleBench.NAME, Map.of(ElectionScaleBench.SIZES_PROPERTY, "5,50,500"), "")),
                        List.of(new Curve(ElectionScaleBench.NAME, "failover.p50", "failover p50", null, 0),
                                new Curve(ElectionScaleBench.NAME, "failover.p99", "failover p99", null, 0)),
                        "Both sides watch only their predecessor, so a failover wakes one candidate whatever N: ZooKeeper"
                                + " allows it flat. Between failovers the one that left joins again at the back of a line"
                                + " of N (a create and a listing of N children), which is not timed."),
                new ScaleRecipe("membership", "leave and join seen by every member against group size", "members",
                        List.of(10, 100, 1000), MembershipBench.PEER,
                        List.of(new Pass(MembershipScaleBench.NAME, Map.of(MembershipScaleBench.SIZES_PROPERTY, "10,100,1000"), "")),
                        List.of(new Curve(MembershipScaleBench.NAME, "leave.p50", "leave seen by all, p50", null, 0),
                                new Curve(MembershipScaleBench.NAME, "join.p50", "join seen by all, p50", null, 0)),
                        "Not flat on either side, by the recipe's nature: a change must reach all N-1 others, so the server"
                                + " sends N-1 watch events per change and a join costs each observer one read of the new member"
                                + " (N-1 requests per join; a leave costs none); 'seen by all' waits for the last of them."),
                new ScaleRecipe("discovery", "registration seen by " + DiscoveryScaleBench.RESOLVERS
                        + " resolvers, and resolve(), against registered instances", "instances", List.of(10, 100, 1000),
                        "curator-x-discovery",
                        List.of(new Pass(DiscoveryScaleBench.NAME, Map.of(DiscoveryScaleBench.SIZES_PROPERTY, "10,100,1000"), "")),
                        List.of(new Curve(DiscoveryScaleBench.NAME, "propagation.p50", "registration seen by all, p50", null, 0),
                                new Curve(DiscoveryScaleBench.NAME, "propagation.p99", "registration seen by all, p99", null, 0),
                                new Curve(DiscoveryScaleBench.NAME, "resolve.mean", "resolve() from the cache, mean", null, 0)),
                        "A registration is one create, one child event per resolver and one read of the new instance per"
                                + " resolver, whatever N; curator-x-discovery's ServiceCache and ours both apply the change"
                                + " without listing the N others again, so ZooKeeper allows it flat. resolve(): ours picks from"
                                + " a list kept in memory, flat; curator-x-discovery's ServiceProvider.getInstance() builds a"
                                + " list of all N cached instances on every call, so its cost grows with N."),
                new ScaleRecipe("config", "propagation from put() to every watcher's listener against watchers", "watchers",
                        List.of(50, 500, 2000), "curator-CuratorCache",
                        List.of(new Pass(CONFIG,
                                        Map.of("coord.bench.config.readers", "50,500,2000", "coord.bench.config.shared", "false"), ""),
                                new Pass(CONFIG,
                                        Map.of("coord.bench.config.readers", "50,500,2000", "coord.bench.config.shared", "true"), "shared.")),
                        List.of(new Curve(CONFIG, "latency.p50", "p50, a client each", null, CONFIG_DEFAULT_WATCHERS),
                                new Curve(CONFIG, "latency.p99", "p99, a client each", null, CONFIG_DEFAULT_WATCHERS),
                                new Curve(CONFIG, "shared.latency.p50", "p50, one shared client", null,
                                        CONFIG_DEFAULT_WATCHERS),
                                new Curve(CONFIG, "shared.latency.p99", "p99, one shared client", null,
                                        CONFIG_DEFAULT_WATCHERS)),
                        "A put reaches each watcher as one watch event and one read (each side), so the server's work and"
                                + " the last watcher's wait grow with N: the p99 is the last of N readers, served one after"
                                + " another by one server thread."),
                new ScaleRecipe("barrier", "double barrier enter and leave against members", "members", List.of(4, 32, 128),
                        "curator-DistributedDoubleBarrier",
                        List.of(new Pass(BARRIER, Map.of("coord.bench.barrier.sizes", "4,32,128"), "")),
                        List.of(new Curve(BARRIER, "enter.p50", "enter p50", "enter.requests", 0),
                                new Curve(BARRIER, "leave.p50", "leave p50", "leave.requests", 0)),
                        "Every member waits for the same decision, so the last arrival's call releases N-1 waiters: N-1 watch"
                                + " events and (leave) N-1 reads, both sides; the release of all N grows with N by that fan-out."));
    }

    /**
     * The recipes {@code names} select, in registry order; all for none.
     *
     * @throws IllegalArgumentException naming the unknown recipe and listing the known ones
     */
    static List<ScaleRecipe> select(List<String> names) {
        List<ScaleRecipe> all = all();
        if (names == null || names.isEmpty()) {
            return all;
        }
        Map<String, ScaleRecipe> byName = new LinkedHashMap<>();
        all.forEach(r -> byName.put(r.name(), r));
        for (String n : names) {
            if (!byName.containsKey(n)) {
                throw new IllegalArgumentException("no scale curve for \"" + n + "\"; known: " + String.join(", ", byName.keySet()));
            }
        }
        return all.stream().filter(r -> names.contains(r.name())).collect(Collectors.toList());
    }

    /** A pass as a benchmark: sets the pass's properties around the run, and prefixes the metrics. */
    private record PassBenchmark(String recipe, Pass pass, Benchmark bench) implements Benchmark {
        @Override
        public String name() {
            return "scale." + recipe + "." + pass.prefix() + bench.name();
        }

        @Override
        public String description() {
            return bench.description() + " " + pass.properties();
        }

        @Override
        public List<Figure> run(BenchContext context) throws InterruptedException {
            Map<String, String> previous = new LinkedHashMap<>();
            pass.properties().forEach((k, v) -> previous.put(k, System.setProperty(k, v)));
            try {
                return bench.run(context).stream()
                        .map(f -> new Figure(f.bench(), pass.prefix() + f.metric(), f.unit(), f.ours(), f.peer(), f.peerName(), f.better()))
                        .toList();
            } finally {
                previous.forEach((k, v) -> {
                    if (v == null) {
                        System.clearProperty(k);
                    } else {
                        System.setProperty(k, v);
                    }
                });
            }
        }
    }
}
