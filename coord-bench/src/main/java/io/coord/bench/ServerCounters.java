package io.coord.bench;

import io.coord.test.ServerRequests;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;

/**
 * What the server counted, for figures that are not timings (and so not noisy): the requests each
 * session sent (the last client xid the server saw from it, from {@code cons}: pings do not count)
 * and the watch notifications the server sent (the sums of its {@code node_*_watch_count}
 * summaries, from {@code mntr}: one per watching session per change). Read before and after a
 * measured window, the differences are what the window cost; the benchmark must make sure nothing
 * else talks to the server meanwhile.
 */
final class ServerCounters {
    /** One reading: the last xid per session, and the watch notifications sent so far. */
    record Reading(Map<Long, Long> xids, long watchEvents) {
        /** Requests {@code session} sent between {@code before} and this reading. */
        long requests(Reading before, long session) {
            return xids.getOrDefault(session, 0L) - before.xids.getOrDefault(session, 0L);
        }

        /** Requests all of {@code sessions} sent between {@code before} and this reading. */
        long requests(Reading before, List<Long> sessions) {
            long sum = 0;
            for (long s : sessions) {
                sum += requests(before, s);
            }
            return sum;
        }

        /** Requests every session in this reading sent since {@code before} (a session new since then from its start). */
        long requests(Reading before) {
            return requests(before, List.copyOf(xids.keySet()));
        }

        long watchEvents(Reading before) {
            return watchEvents - before.watchEvents;
        }
    }

    private final int port;

    ServerCounters(String connectString) {
        this.port = Integer.parseInt(connectString.substring(connectString.lastIndexOf(':') + 1));
    }

    Reading read() {
        return new Reading(xids(), watchEvents());
    }

    /**
     * A reading once nothing is in flight any more (two equal request counts 200 ms apart, at most
     * 10 s): requests sent in the background (a release's delete) are counted with the window that
     * sent them.
     */
    Reading settled() throws InterruptedException {
        Reading last = read();
        for (int i = 0; i < 50; i++) {
            Thread.sleep(200);
            Reading now = read();
            if (now.xids().equals(last.xids())) {
                return now;
            }
            last = now;
        }
        return last;
    }

    private Map<Long, Long> xids() {
        return ServerRequests.lastXids(port);
    }

    private long watchEvents() {
        return ServerRequests.watchEvents(port);
    }

    /** The session id of a connected Curator client. */
    static long session(CuratorFramework curator) {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle: " + e, e);
        }
    }
}
