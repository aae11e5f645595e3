import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("biocoder_passk.py")
launch_gradio_widget(module)
