package dev.verbatim.bench.objects;

import dev.verbatim.bench.harness.SuiteArgs;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ObjectsCasesTest {
    @Test
    void aQuickRunRetriesATurnTheCompilersDisturbedOnceAFullOneThreeTimes() {
        assertEquals(1, ObjectsBench.plan(true).jitRetries());
        assertEquals(3, ObjectsBench.plan(false).jitRetries());
    }

    @Test
    void benchObjectsRunsTheCasesThatVerbatimBenchCasesNamesAndTheNullCallTheListsNeed() {
        String before = System.getProperty(SuiteArgs.CASES);
        try {
            System.clearProperty(SuiteArgs.CASES);
            assertEquals(ObjectsCase.calls(), ObjectsBench.selected(ObjectsCase.calls(), false), "unset: every case");

            System.setProperty(SuiteArgs.CASES, "shm/forward-ref");
            assertEquals(List.of(ObjectsCase.FORWARD_REF), ObjectsBench.selected(ObjectsCase.calls(), false));
            assertEquals(List.of(), ObjectsBench.selected(ObjectsCase.lists(), false));

            String list = ObjectsCase.lists().getFirst().key();
            System.setProperty(SuiteArgs.CASES, list);
            assertEquals(List.of(ObjectsCase.lists().getFirst()), ObjectsBench.selected(ObjectsCase.lists(), false));
            assertEquals(List.of(ObjectsCase.SHM_CALL_NULL), ObjectsBench.selected(ObjectsCase.calls(), true),
                    "a list case needs the null call for its work per element");
        } finally {
            if (before == null) {
                System.clearProperty(SuiteArgs.CASES);
            } else {
                System.setProperty(SuiteArgs.CASES, before);
            }
        }
    }
}
