package io.coord.election;

import io.coord.Codec;
import java.util.Map;
import java.util.Objects;

/**
 * What a candidate node holds, as JSON: {@code {"participant":"…","metadata":{…}}}. Written once at
 * create and never changed, so the candidate watching this node is woken only when it goes.
 */
record CandidateData(String participant, Map<String, String> metadata) {
    /** Metadata plus the field names and the id: generous, still far below a znode's limit. */
    static final Codec<CandidateData> CODEC = Codec.json(CandidateData.class)
            .withLimit(ElectionOptions.MAX_METADATA_BYTES + 1024);

    CandidateData {
        Objects.requireNonNull(participant, "participant");
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }
}
