package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.coord.test.Awaits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The console in a real headless Chromium (Debian's chromium package, which .ci/run installs):
 * each tab shows the live namespace, and the page follows a released lock and a killed leader
 * without a reload. Skips, saying so in one line, where chromium is missing.
 *
 * <p>With {@code -Dcoord.ui.screenshots=DIR} it also saves one PNG per tab there (how
 * docs/img/ui-*.png were made).
 */
class WebConsoleBrowserTest {
    /** How long the page may take to show a change: a few polls of one second each. */
    private static final Duration FOLLOWS = Duration.ofSeconds(8);

    @Test
    void thePageShowsEachTabAndFollowsAReleasedLockAndAKilledLeader() throws Exception {
        assumeTrue(HeadlessChromium.binary().isPresent(), "chromium is missing (/usr/bin/chromium; apt-get install chromium): browser test skipped");
        String shots = System.getProperty("coord.ui.screenshots");
        try (ConsoleFixture fixture = new ConsoleFixture();
             // the console as coord ui serves it: the findings tab runs coord doctor on the fixture's namespace
             WebConsole console = WebConsole.start(fixture.client(), "127.0.0.1", 0);
             HeadlessChromium browser = HeadlessChromium.open(console.url() + "#locks", 1100, 640)) {
            Page page = new Page(browser, shots);
            // Starting a browser is slow on a loaded machine; how fast the page follows is measured from here.
            page.follows("the page's first poll drawn", Duration.ofSeconds(30), t -> t.contains("updated "));

            page.shows("locks", "billing-7", "billing-8", "1 waiting", "held since");
            fixture.releaseLock();
            page.follows("the lock's new holder, no waiter left", t -> t.contains("billing-8") && !t.contains("billing-7")
                    && !t.contains("1 waiting") && t.contains("none"));

            page.shows("queues", "jobs", "worker-a", "no such image", "missing.png", "1 dead", "0 ready, 1 delayed, 1 claimed");

            page.shows("elections", "leader node-a", "node-b", "/groups/workers", "worker-a", "eu-2");
            fixture.killLeader();
            page.follows("node-b leads after node-a's session closed", t -> t.contains("leader node-b") && !t.contains("node-a"));

            page.shows("barriers", "/barriers/nightly", "BROKEN", "1 of 3 arrived", "generation 1");
            page.shows("config", "/config/billing/batch.size", "v1", "svc-1", "64", "HISTORY", "canary 25%");
            page.shows("findings", "ERROR", "barrier.broken", "/barriers/nightly", "WARNING", "queue.dead-letters", "/queues/jobs");
        }
    }

    /** The console's page in the browser: open a tab, wait for its text, save its screenshot. */
    private record Page(HeadlessChromium browser, String shots) {
        void shows(String tab, String... texts) throws Exception {
            browser.eval("location.hash = '#" + tab + "'");
            String text = follows(tab + " shows " + String.join(", ", texts), FOLLOWS, t -> List.of(texts).stream().allMatch(t::contains));
            assertFalse(text.contains("cannot read"), text);
            if (shots != null) {
                Files.createDirectories(Path.of(shots));
                Files.write(Path.of(shots, "ui-" + tab + ".png"), browser.screenshot());
            }
        }

        String follows(String what, java.util.function.Predicate<String> condition) {
            return follows(what, FOLLOWS, condition);
        }

        String follows(String what, Duration bound, java.util.function.Predicate<String> condition) {
            String[] last = {""};
            try {
                return Awaits.value(what, bound, () -> {
                    try {
                        last[0] = browser.eval("document.getElementById('view').innerText + '\\n' + document.getElementById('status').innerText");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    return condition.test(last[0]) ? java.util.Optional.of(last[0]) : java.util.Optional.empty();
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; the page showed:\n" + last[0], e);
            }
        }
    }
}
