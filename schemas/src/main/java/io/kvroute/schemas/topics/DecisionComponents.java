package io.kvroute.schemas.topics;

import io.kvroute.schemas.v1.CandidateScore;
import io.kvroute.schemas.v1.RoutingDecision;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The score components of a decision's candidates. A decision names them once ({@code componentNames}) and each
 * candidate lists its values in that order ({@code componentValues}): the names repeated per candidate were most of a
 * decision record, and one is written for every request. Decisions of older routers carry a map per candidate instead;
 * {@link #of} reads either.
 */
public final class DecisionComponents {
    private DecisionComponents() {
    }

    /** The names to write for these candidates' components: the first candidate's order, then any others'. */
    public static List<String> names(List<? extends Map<String, Double>> candidates) {
        if (candidates.isEmpty()) {
            return List.of();
        }
        List<String> first = new ArrayList<>(candidates.get(0).keySet());
        Set<String> more = null;
        for (int c = 1; c < candidates.size(); c++) {
            if (!sameKeys(first, candidates.get(c))) { // one policy's candidates have the same keys, in order
                if (more == null) {
                    more = new LinkedHashSet<>(first);
                }
                more.addAll(candidates.get(c).keySet());
            }
        }
        return more == null ? first : List.copyOf(more);
    }

    /** One candidate's values in the order of {@code names}; NaN for a name it does not have. */
    public static List<Float> values(List<String> names, Map<String, Double> components) {
        List<Float> values = new ArrayList<>(names.size());
        int i = 0;
        for (Map.Entry<String, Double> e : components.entrySet()) { // in names' order, unless the candidate's keys differ
            if (i >= names.size() || !names.get(i).equals(e.getKey())) {
                return valuesByName(names, components);
            }
            values.add(e.getValue() == null ? Float.NaN : e.getValue().floatValue());
            i++;
        }
        while (values.size() < names.size()) {
            values.add(Float.NaN);
        }
        return values;
    }

    private static List<Float> valuesByName(List<String> names, Map<String, Double> components) {
        List<Float> values = new ArrayList<>(names.size());
        for (String name : names) {
            Double v = components.get(name);
            values.add(v == null ? Float.NaN : v.floatValue());
        }
        return values;
    }

    private static boolean sameKeys(List<String> keys, Map<String, Double> components) {
        if (components.size() != keys.size()) {
            return false;
        }
        int i = 0;
        for (String key : components.keySet()) {
            if (!keys.get(i++).equals(key)) {
                return false;
            }
        }
        return true;
    }

    /**
     * A candidate's components by name, in the decision's order: from its values and the decision's names, or from
     * the map an older router wrote. A value past the names (a malformed record) is ignored, as is a NaN.
     */
    public static Map<String, Double> of(RoutingDecision decision, CandidateScore candidate) {
        List<Float> values = candidate.getComponentValues();
        if (values == null || values.isEmpty()) {
            Map<String, Double> legacy = candidate.getComponents();
            return legacy == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(legacy));
        }
        List<String> names = decision.getComponentNames() == null ? List.of() : decision.getComponentNames();
        Map<String, Double> components = new LinkedHashMap<>();
        for (int i = 0; i < Math.min(names.size(), values.size()); i++) {
            Float v = values.get(i);
            if (v != null && !v.isNaN()) {
                components.put(names.get(i), v.doubleValue());
            }
        }
        return Collections.unmodifiableMap(components);
    }
}
