from planprobe.agents.react import parse_react


def test_well_formed_action():
    step = parse_react('Thought: first cut\nAction: cutting_hair\nAction Input: {}\n')
    assert (step.action, step.action_input, step.final) == ("cutting_hair", "{}", None)


def test_lenient_about_case_spacing_fences_quotes_and_parentheses():
    step = parse_react('thought: x\nACTION :  `cutting_hair()`\naction input: ```json\n{"start_time": 9}\n```')
    assert step.action == "cutting_hair" and step.action_input == '{"start_time": 9}'
    step = parse_react('Action: "washing_hair"\nAction Input: none')
    assert step.action == "washing_hair" and step.action_input == "{}"
    step = parse_react("Action: washing_hair")  # no input line: no arguments
    assert step.action_input == "{}"


def test_text_after_the_input_is_ignored():
    step = parse_react('Action: a\nAction Input: {"start_time": 3} since it is early\nObservation: done')
    assert step.action_input == '{"start_time": 3}'


def test_final_answer():
    assert parse_react("Thought: all done\nFinal Answer: everything is done").final == "everything is done"


def test_an_action_wins_over_a_final_answer_in_the_same_reply():
    step = parse_react("Action: a\nAction Input: {}\nFinal Answer: done")
    assert step.action == "a"


def test_unusable_replies_say_why_and_never_raise():
    for reply in ["", "I will now do the tasks.", "Action:\nAction Input: {}", None]:
        step = parse_react(reply)
        assert step.problem and step.action is None and step.final is None
