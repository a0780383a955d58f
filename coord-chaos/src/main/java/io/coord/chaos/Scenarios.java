package io.coord.chaos;

import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The scenario registry: one line per scenario, its name, its controller side and its worker side.
 * The worker kind a scenario starts ({@link ChaosContext#startWorkers}) is its name.
 */
public final class Scenarios {
    /** One registered scenario. */
    public record Entry(String name, Supplier<Scenario> controller, Supplier<WorkerLogic> worker) {
    }

    /** Every scenario, in the order the suite runs them. */
    public static final List<Entry> ALL = List.of(
            new Entry("lock", LockScenario::new, LockWorker::new),
            new Entry("election", ElectionScenario::new, ElectionWorker::new),
            new Entry("naming", NamingScenario::new, NamingWorker::new),
            new Entry("queue", QueueScenario::new, QueueWorker::new),
            new Entry("barrier", BarrierScenario::new, BarrierMember::new),
            new Entry("config", ConfigScenario::new, ConfigReader::new),
            new Entry("discovery", DiscoveryScenario::new, DiscoveryWorker::new),
            new Entry("membership", MembershipScenario::new, MembershipWorker::new));

    private Scenarios() {
    }

    public static List<String> names() {
        return ALL.stream().map(Entry::name).collect(Collectors.toList());
    }

    public static Entry entry(String name) {
        return ALL.stream().filter(e -> e.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no chaos scenario '" + name + "'; known: " + names()));
    }

    static WorkerLogic worker(String name) {
        return entry(name).worker().get();
    }
}
