package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.coord.FencingToken;
import io.coord.queue.QueueStats;
import io.coord.queue.TaskClaim;
import io.coord.queue.TaskQueue;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @CoordTaskHandler} methods as TaskWorkers in a real application context against a real ZooKeeper. */
class CoordTaskHandlerIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private static final Duration BOUND = Duration.ofSeconds(20);

    record Job(String name, long sleepMillis) {
    }

    static final Set<String> HANDLED = ConcurrentHashMap.newKeySet();
    static final Set<String> THREADS = ConcurrentHashMap.newKeySet();
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();
    static final List<FencingToken> TOKENS = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch slowStarted = new CountDownLatch(1);

    @BeforeEach
    void clear() {
        HANDLED.clear();
        THREADS.clear();
        EVENTS.clear();
        TOKENS.clear();
        slowStarted = new CountDownLatch(1);
    }

    static class Handlers {
        @CoordTaskHandler(queue = "jobs", concurrency = 2)
        void handle(Job job) throws InterruptedException {
            THREADS.add(Thread.currentThread().getName());
            if (job.name().equals("bad")) {
                EVENTS.add("bad seen");
                throw new IllegalArgumentException("bad job");
            }
            if (job.sleepMillis() > 0) {
                slowStarted.countDown();
                Thread.sleep(job.sleepMillis()); // bounded; an interrupt would end it early
                EVENTS.add("slow finished");
            }
            HANDLED.add(job.name());
        }

        @CoordTaskHandler(queue = "exports", type = Job.class)
        void export(TaskClaim<Job> claim) {
            TOKENS.add(claim.token());
            HANDLED.add("export " + claim.payload().name());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    static class TwoParameters {
        @CoordTaskHandler(queue = "jobs")
        void handle(Job job, String extra) {
        }
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class, CoordTasksAutoConfiguration.class))
                .withPropertyValues("coord.connect-string=" + zk.connectString(), "coord.namespace=" + zk.namespace(),
                        "coord.session-timeout=4s",
                        "coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms");
    }

    @Test
    void annotatedMethodsHandleTheirQueuesAndShutdownDrainsBeforeTheClientCloses() throws Exception {
        try (TaskQueue<Job> jobs = TaskQueue.open(zk.newClient(), "jobs", Job.class);
             TaskQueue<Job> exports = TaskQueue.open(zk.newClient(), "exports", Job.class)) {
            runner().withUserConfiguration(App.class).run(context -> {
                assertThat(context).hasNotFailed();
                for (int i = 0; i < 6; i++) {
                    jobs.enqueue(new Job("j" + i, 0));
                }
                jobs.enqueue(new Job("bad", 0));
                exports.enqueue(new Job("e1", 0));
                Awaits.until("six jobs and one export handled", BOUND,
                        () -> HANDLED.containsAll(List.of("j0", "j1", "j2", "j3", "j4", "j5", "export e1")));
                Awaits.until("the bad job tried", BOUND, () -> EVENTS.contains("bad seen"));
                assertThat(TOKENS).hasSize(1);

                // A job still running when the application stops is drained: it finishes, and is completed.
                jobs.enqueue(new Job("slow", 1000));
                assertThat(slowStarted.await(Awaits.scaled(BOUND).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            });
            assertThat(EVENTS).contains("slow finished");
            assertThat(HANDLED).contains("slow");
            QueueStats stats = jobs.stats();
            assertThat(stats.processing()).as("nothing left claimed by the stopped application").isEmpty();
            assertThat(THREADS).hasSizeGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void aHandlerThatCannotBeServedFailsStartupNamingIt() {
        runner().withBean(TwoParameters.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining(TwoParameters.class.getName() + ".handle")
                    .hasStackTraceContaining("one parameter");
        });
    }
}
