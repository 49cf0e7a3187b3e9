class Raising:
    def act(self, observation, legal_actions, time_left):
        raise RuntimeError("boom")
