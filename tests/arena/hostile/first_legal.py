class FirstLegal:
    def act(self, observation, legal_actions, time_left):
        return legal_actions[0]
