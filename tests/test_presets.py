"""Section presets: every name and value is a valid control setting, and applying one is one URL write."""
import pytest

from weighttying import state
from weighttying.app.store import Store, preset_selector


def test_presets_name_real_controls_with_valid_values():
    for section, presets in state.PRESETS.items():
        assert section in state.SECTIONS
        assert presets, f"{section} has an empty preset list"
        for name, values in presets.items():
            assert name.strip() and len(name) <= 40, f"{section}: preset name {name!r}"
            for field, value in values.items():
                c = state.BY_KEY.get(f"{section}.{field}")
                assert c is not None, f"{section}/{name}: {field!r} is not a control of {section}"
                assert type(value) is c.type, f"{section}/{name}: {field}={value!r} is not {c.type.__name__}"
                # The value survives the URL exactly as the reader's own setting would.
                parsed, note = state.parse_value(c, state.fmt(value))
                assert note is None and parsed == value, f"{section}/{name}: {field}={value!r}: {note}"


def test_presets_are_distinct_and_the_first_is_the_default():
    for section, presets in state.PRESETS.items():
        full = [tuple(sorted(state.preset_values(section, n).items())) for n in presets]
        assert len(set(full)) == len(full), f"{section}: two presets give the same setting"
        first = next(iter(presets))
        assert state.preset_values(section, first) == vars(getattr(state.State(), section))


@pytest.mark.parametrize("section", sorted(state.PRESETS))
def test_applying_a_preset_writes_the_url_once_and_matches(section):
    writes = []
    store = Store(state.State(), on_change=writes.append)
    for name in state.PRESETS[section]:
        store.reset(section)
        writes.clear()
        store.apply_preset(section, name)
        got = {c.name: getattr(store[section], c.name) for c in state.CONTROLS if c.section == section}
        assert got == state.preset_values(section, name)
        assert len(writes) <= 1, f"{section}/{name}: {len(writes)} posts of its values"
        assert state.matching_preset(section, got) == name
        assert not writes or writes[-1] == {section: state.link_values(store.page, section)}


def test_selector_follows_the_state_and_applies_presets():
    store = Store(state.State())
    sel = preset_selector(store, "sweep")
    assert sel.value == "page's coarse grid"
    sel.value = "both near 1"
    assert (store["sweep"].sigma, store["sweep"].in_scale, store["sweep"].grid) == (0.227, 4.5, "fine")
    store["sweep"].sigma = 0.3  # no preset has this: the selector says so
    assert sel.value == state.CUSTOM_PRESET
    store.reset("sweep")
    assert sel.value == "page's coarse grid"
    sel.value = state.CUSTOM_PRESET  # choosing "custom" changes nothing
    assert store.page == state.State()


def test_teacher_mode_hiding_a_control_hides_the_presets():
    store = Store(state.parse_query("hide=sweep.sigma")[0])
    assert not preset_selector(store, "sweep").visible
    assert preset_selector(store, "repeat").visible
