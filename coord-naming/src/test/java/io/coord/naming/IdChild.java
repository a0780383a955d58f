package io.coord.naming;

import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.io.PrintStream;
import java.time.Duration;

/**
 * A client process for the crash tests: takes IDs in a loop and prints each one ({@code id N}) the
 * moment {@code next()} returns, until it is killed. Arguments: connect string, namespace,
 * {@code sequence} or {@code blocks}, ID name, block size.
 */
public final class IdChild {
    private IdChild() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        CoordClient client = CoordClient.connect(CoordSettings.builder().connectString(args[0]).namespace(args[1])
                .sessionTimeout(Duration.ofSeconds(4)).connectionTimeout(Duration.ofSeconds(4)).build());
        IdOptions options = IdOptions.builder().blockSize(Integer.parseInt(args[4])).build();
        IdLoad.Source source;
        if (args[2].equals("sequence")) {
            SequenceIds ids = SequenceIds.open(client, args[3], options);
            source = ids::next;
        } else {
            BlockIds ids = BlockIds.open(client, args[3], options);
            source = ids::next;
        }
        out.println("ready");
        out.flush();
        while (true) {
            out.println("id " + source.next());
            out.flush();
        }
    }
}
