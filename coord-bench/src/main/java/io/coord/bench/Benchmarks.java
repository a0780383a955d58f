package io.coord.bench;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** The registry of benchmarks, in the order they run. Later recipes add theirs to {@link #all()}. */
public final class Benchmarks {
    private Benchmarks() {
    }

    /** Every benchmark, in run order. */
    public static List<Benchmark> all() {
        return java.util.stream.Stream.of(List.of(
                new CreateDeleteBench(),
                new LockCycleFloorBench(),
                new AsyncCreateBench(),
                new GetDataBench(),
                new NamingBench.Sequence(), new NamingBench.Blocks(), new NamingBench.Resolve(),
                new DiscoveryScaleBench(),
                new ElectionFailoverBench(),
                new ElectionScaleBench(),
                new ElectionExpiryBench(),
                new MembershipBench(),
                new MembershipScaleBench(),
                new QueueBench(),
                new QueueDepthBench(),
                new BarrierBench(),
                new ConfigPropagationBench()),
                LockBench.all())
                .flatMap(List::stream).toList();
    }

    /**
     * The benchmarks {@code names} select, in registry order: a name selects the benchmark of that
     * name, or every benchmark under it ({@code limits} selects {@code limits.*}). No names selects
     * all. A name that selects nothing is an error listing the known names.
     */
    public static List<Benchmark> select(List<String> names) {
        List<Benchmark> all = all();
        if (names == null || names.isEmpty()) {
            return all;
        }
        Set<Benchmark> chosen = new LinkedHashSet<>();
        for (String name : names) {
            List<Benchmark> matched = all.stream()
                    .filter(b -> b.name().equals(name) || b.name().startsWith(name + "."))
                    .toList();
            if (matched.isEmpty()) {
                throw new IllegalArgumentException("no benchmark named \"" + name + "\"; known: "
                        + all.stream().map(Benchmark::name).collect(Collectors.joining(", ")));
            }
            chosen.addAll(matched);
        }
        return all.stream().filter(chosen::contains).toList();
    }
}
