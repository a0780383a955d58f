package io.coord.election;

import io.coord.Codec;
import java.util.Map;
import java.util.Objects;

/**
 * What a candidate node holds, as JSON: {@code {"participant":"…","metadata":{…},"acting":false}}.
 * {@code acting} turns true once, when the node's owner starts acting as leader (so observers can
 * tell a leader still in its handover from one at work, and since when: the node's mtime).
 */
record CandidateData(String participant, Map<String, String> metadata, boolean acting) {
    /** Metadata plus the field names and the id: generous, still far below a znode's limit. */
    static final Codec<CandidateData> CODEC = Codec.json(CandidateData.class)
            .withLimit(ElectionOptions.MAX_METADATA_BYTES + 1024);

    CandidateData {
        Objects.requireNonNull(participant, "participant");
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    CandidateData nowActing() {
        return new CandidateData(participant, metadata, true);
    }
}
