package io.coord.cli.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CodecException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The job plan the coordinators hand over to each other, and the wire between controller and workers. */
class JobTest {
    @Test
    void aPlanSurvivesItsNodeAndAWaveIsReplacedNotDuplicated() {
        Job.Wave planned = new Job.Wave(1, List.of(new Job.Planned(7, 40), new Job.Planned(8, 12)), false);
        Job job = new Job(4294967297L, List.of()).with(planned);
        Job filled = Job.decode(job.encode()).with(planned.asFilled());

        assertEquals(1, filled.waves().size());
        assertEquals(1, filled.filledWaves());
        assertEquals(List.of(new Job.Planned(7, 40), new Job.Planned(8, 12)), filled.allTasks());
        assertEquals(filled, Job.decode(filled.encode()));
    }

    @Test
    void aNodeThatHoldsNoPlanIsRefusedWithItsReason() {
        CodecException e = assertThrows(CodecException.class, () -> Job.decode("{\"jobId\":1}x".getBytes(StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().startsWith("the demo job node holds no valid plan"), e.getMessage());
    }

    @Test
    void amountsDependOnlyOnTheSeedAndThePlaceInThePlan() {
        assertEquals(Job.amount(42, 1, 3), Job.amount(42, 1, 3));
        assertTrue(Job.amount(42, 1, 3) >= 10 && Job.amount(42, 1, 3) < 100);
        assertNotEquals(List.of(Job.amount(42, 1, 0), Job.amount(42, 1, 1), Job.amount(42, 1, 2)),
                List.of(Job.amount(43, 1, 0), Job.amount(43, 1, 1), Job.amount(43, 1, 2)));
    }

    @Test
    void wireFieldsRoundTripAndSpacesNeverSplitAValue() {
        String line = "E REJECTED" + Wire.format("task", 17, "answer", "stale: highest is 0x20");
        Map<String, String> fields = Wire.parse(line.split(" "), 2);
        assertEquals(Map.of("task", "17", "answer", "stale:_highest_is_0x20"), fields);
    }
}
