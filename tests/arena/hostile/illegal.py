class Illegal:
    def act(self, observation, legal_actions, time_left):
        return "ZZ"
