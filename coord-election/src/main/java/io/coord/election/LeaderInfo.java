package io.coord.election;

import io.coord.FencingToken;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * Who leads an election: the lowest candidate.
 *
 * @param participant the leader's id, metadata and node
 * @param acting      whether the leader has finished its handover and announced that it acts
 *                    (right after it starts, it writes its epoch on the election node). False for
 *                    the short time between being elected and that announcement, and during a
 *                    handover grace. Always false for a Curator leader, which does not announce.
 * @param since       server time the leader announced it acts when {@code acting}; otherwise the
 *                    time it joined (it has not started yet)
 */
public record LeaderInfo(Participant participant, boolean acting, Instant since) {
    public LeaderInfo {
        Objects.requireNonNull(participant, "participant");
        Objects.requireNonNull(since, "since");
    }

    public String id() {
        return participant.id();
    }

    public Map<String, String> metadata() {
        return participant.metadata();
    }

    /**
     * The leadership's epoch: czxid of the leader's node; strictly greater for every later leader.
     * A Curator leader (see {@link #curator()}) has none: this is then its node's czxid, which
     * orders it among the leaders but fences nothing (Curator's leader writes unfenced).
     */
    public FencingToken epoch() {
        return participant.token();
    }

    /** Whether the leader is a Curator {@code LeaderLatch}/{@code LeaderSelector} sharing the election: no epoch, never announces acting. */
    public boolean curator() {
        return participant.library() == Participant.Library.CURATOR;
    }
}
