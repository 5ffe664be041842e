from nanopass_pto.pypto.runtime import *
